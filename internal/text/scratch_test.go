package text
import ("testing";"fmt";"os";"strings")
func TestScratch(t *testing.T){
 a:=New()
  pr:=a.Prompt(os.Getenv("P"),strings.Split(os.Getenv("A"),","))
  for _,c:=range pr.Clauses { fmt.Printf("verb=%q word=%q apps=%v text=%q\n",c.Verb,c.VerbWord,c.Apps,c.Text)}
}
